"""Retrieval: question and chunks to vectors, lexical matching, top-k search, follow-up questions."""
