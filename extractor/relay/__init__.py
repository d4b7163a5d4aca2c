"""The Relay language (text format v0.0.5, save_json) in Python, since TVM 0.20 dropped it."""
