"""The stages of a build that judge problems: each folder holds one stage and the helpers only it uses."""
