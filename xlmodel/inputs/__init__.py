"""Untrusted input: reading files (size caps, zip/XML defences), sanitizing text, writing outputs atomically, plan documents."""
