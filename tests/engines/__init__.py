"""Tests of the Datalog engine layer: the Soufflé subset, the embedded engine and the constructs
it translates, Soufflé runs (and Soufflés that lie), the layer's own imports, Soufflé's suite."""
