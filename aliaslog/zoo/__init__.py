"""Model zoos: Relay (re-created tvm.relay.testing) and Relax (HF models via torch.export)."""
