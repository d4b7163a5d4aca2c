"""Tests of many models at once: `aliaslog batch`, its HTML report, the Relay and Relax zoos."""
