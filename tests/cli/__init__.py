"""Tests of the tool as a user meets it: the CLI, mistakes at the command line, the
layout, and the README's console examples run as printed."""
