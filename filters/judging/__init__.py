"""How a program's result is judged against a test, shared by the build's stages and the training-time rewards."""
