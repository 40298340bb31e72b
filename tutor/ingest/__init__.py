"""Ingestion: chapter PDFs to cleaned pages, chapters and chunks, and the shelves built from them."""
