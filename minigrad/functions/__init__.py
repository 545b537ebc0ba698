"""The differentiable operations: each one a ``Function`` with its forward and backward.

Tensor methods and operators (``x * y``, ``x.sum(1)``) call these; the files group
them by kind: ``arithmetic`` (binary operators, matmul, casts), ``unary`` (pointwise
functions), ``reduction`` (sum, mean, var, max, logsumexp, softmax), ``shape`` (views
and joins) and ``indexing`` (getitem, gather, where, masked_fill).
"""
