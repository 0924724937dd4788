"""The cost axis: long generated streams (scenarios) and how an implementation's time and memory grow with them."""
