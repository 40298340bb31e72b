"""Where the library lives: shelves (FAISS on disk) and the printed pages of their PDFs."""
