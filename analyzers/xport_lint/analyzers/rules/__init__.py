"""One module per rule; `registry` collects them."""
