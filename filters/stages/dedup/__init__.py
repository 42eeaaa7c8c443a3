"""Near-duplicate removal (`stage.py`): shingles and MinHash signatures."""
