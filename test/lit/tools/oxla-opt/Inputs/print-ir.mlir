func.func @f(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32
  %1 = arith.addi %x, %x : i32
  %dead = arith.muli %x, %x : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}
func.func private @unused() {
  return
}
