"""Verification: run the references against the tests and keep problems whose tests are trustworthy (`stage.py`), with the wrong programs (mutants) that test the tests."""
