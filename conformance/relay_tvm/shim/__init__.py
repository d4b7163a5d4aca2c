"""A small `tvm` stand-in over the project, to run TVM's Python-built Relay tests as written."""
