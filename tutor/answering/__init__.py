"""Answerers: the extractive quote, the local or remote language model, its prompts and model files."""
