"""TVM v0.19's own Relay tests run through aliaslog: discovery, checks, a tvm.relay shim, report."""
