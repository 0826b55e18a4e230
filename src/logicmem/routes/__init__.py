"""Routes into the context: semantic now; logic and visibility plug in the same way."""
