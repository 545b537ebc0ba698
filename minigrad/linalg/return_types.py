"""The named tuples ``mg.linalg``'s functions return, named as PyTorch's
``torch.return_types.*``: ``eigh(A).eigenvalues`` and ``L, V = eigh(A)`` both work."""

from collections import namedtuple

linalg_cholesky_ex = namedtuple("linalg_cholesky_ex", ["L", "info"])
linalg_inv_ex = namedtuple("linalg_inv_ex", ["inverse", "info"])
linalg_solve_ex = namedtuple("linalg_solve_ex", ["result", "info"])
linalg_eigh = namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_qr = namedtuple("linalg_qr", ["Q", "R"])
linalg_svd = namedtuple("linalg_svd", ["U", "S", "Vh"])
linalg_slogdet = namedtuple("linalg_slogdet", ["sign", "logabsdet"])
linalg_lstsq = namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
linalg_lu = namedtuple("linalg_lu", ["P", "L", "U"])
linalg_lu_factor = namedtuple("linalg_lu_factor", ["LU", "pivots"])
linalg_lu_factor_ex = namedtuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
linalg_ldl_factor = namedtuple("linalg_ldl_factor", ["LD", "pivots"])
linalg_ldl_factor_ex = namedtuple("linalg_ldl_factor_ex", ["LD", "pivots", "info"])
# torch-level (older) functions
qr = namedtuple("qr", ["Q", "R"])
svd = namedtuple("svd", ["U", "S", "V"])
lu_unpack = namedtuple("lu_unpack", ["P", "L", "U"])
triangular_solve = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
geqrf = namedtuple("geqrf", ["a", "tau"])
slogdet = namedtuple("slogdet", ["sign", "logabsdet"])
