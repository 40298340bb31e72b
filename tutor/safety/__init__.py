"""The safety layer: the confidence gate before any answer, the reader's check, the answer checks after."""
