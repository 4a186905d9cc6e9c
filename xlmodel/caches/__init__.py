"""Caches in the user's cache folder: the reference results and the policy listing."""
