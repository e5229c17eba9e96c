"""Human views of scan, check and compare results."""
