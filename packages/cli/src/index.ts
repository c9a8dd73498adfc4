// Public API of @toolnexus/cli (being built).
export {};
