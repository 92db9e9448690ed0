print("child-worker: workers arrive with the distribution layer; see README.md")
