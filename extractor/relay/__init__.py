"""The Relay language (TVM text format v0.0.5 and save_json), carried in Python since TVM 0.20 dropped it."""
