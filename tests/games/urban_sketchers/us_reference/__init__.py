"""Urban Sketchers' readable reference code, the tests' oracle; never imported by a run."""
