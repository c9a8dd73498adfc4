// Public API of @toolnexus/mcp-server (being built).
export {};
