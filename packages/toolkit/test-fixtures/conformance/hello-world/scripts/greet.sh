#!/usr/bin/env bash
# Example resource referenced by the hello-world skill.
name="${1:-world}"
echo "Hello, ${name}! (from the hello-world skill)"
