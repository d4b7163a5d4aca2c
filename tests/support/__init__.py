"""What the tests share and is not a test: paths, options, generators, cases, checks, drivers."""
