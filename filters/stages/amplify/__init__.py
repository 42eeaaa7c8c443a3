"""Test amplification: new inputs for a problem, judged by its references (`stage.py`), and what makes them."""
