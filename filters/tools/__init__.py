"""Small shared tools of the package: nothing here knows about problems or stages."""
