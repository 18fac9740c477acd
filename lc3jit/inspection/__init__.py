"""Looking inside translation: block dumps (text, JSON, the HTML page), benchmarks, charts."""
