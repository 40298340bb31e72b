"""Reading text: normalisation for matching, the language of a text, terms and stems, sentences."""
