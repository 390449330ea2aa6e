"""Formula tests (a package: its module names must not clash with tests/api's test_gradcheck)."""
