"""Helpers for testing compiled programs: result checks and the conformance runner."""
