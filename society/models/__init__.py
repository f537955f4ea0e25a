"""Model clients: the factory, the offline scripted and replay clients, prices, rate limits."""
