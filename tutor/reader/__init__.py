"""The answerability reader: the trained cross-encoder and its training."""
