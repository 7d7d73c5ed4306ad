"""xport-lint's language server: a thin pygls adapter over `xport_lint.analyzers`."""
