"""Communication models: LogP/LogGP fitted from measurements (logp), LoGPC's network
contention (logpc) and Memory-LogP's memory cost of a layout (memory)."""
