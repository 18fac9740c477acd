"""The debugger: stepping both ways, breakpoints and watches, expressions, at a prompt."""
