function d = det(A)
%DET  The determinant of the square real matrix A, as Octave computes it: the product of the
%   diagonal of a triangular A; the square of the product of the Cholesky factor's diagonal
%   for a symmetric A with a positive diagonal that is positive definite; else the product of
%   LU's pivots, negated for an odd number of row swaps (m2cu_matrix_kind, m2cu_cholesky,
%   m2cu_lu). The product is kept scaled by powers of two, as Octave keeps it, so that it
%   overflows or underflows only where the determinant does. m2cu stops where its scaling and
%   Octave's could round differently: a nonzero pivot of magnitude outside [2^-400, 2^400]
%   ([2^-40, 2^40] for single), a determinant of 2^1023 or more (2^127 for single), and a
%   matrix with Inf or NaN (m2cu_finite_matrix).
m2cu_square_matrix(A);
kind = m2cu_matrix_kind(A);
positive = false;
if kind == 3
  [G, positive] = m2cu_cholesky(A);
  if positive
    [m, s] = scaled_product(G);
    [m, s] = rescaled(m * m, 2 * s);
  end
end
if kind == 1 || kind == 2
  [m, s] = scaled_product(A);
elseif ~positive
  [F, p, singular, swaps] = m2cu_lu(A);
  [m, s] = scaled_product(F);
  if mod(swaps, 2) == 1
    m = -m;
  end
end
d = unscaled(m, s);
end

function [m, s] = scaled_product(F)
% The product of F's diagonal, in order, as m * step^s (step from `steps`).
[~, limit] = steps(F);
if isa(F, 'single')
  m = single(1);
else
  m = 1;
end
s = 0;
for k = 1:size(F, 1)
  c = F(k, k);
  if c ~= 0 && isfinite(c) && (abs(c) < 1 / limit || abs(c) > limit)
    error('m2cu:det', 'm2cu: det: a pivot of magnitude %g is outside the range where m2cu scales the product as Octave does', abs(c));
  end
  [m, s] = rescaled(m * c, s);
end
end

function [m, s] = rescaled(m, s)
% m * step^s with m brought back to [1/step, step] (unless it is 0, Inf or NaN).
step = steps(m);
if abs(m) > step && isfinite(m)
  m = m / step;
  s = s + 1;
elseif m ~= 0 && abs(m) < 1 / step
  m = m * step;
  s = s - 1;
end
end

function d = unscaled(m, s)
% m * step^s, one power of step at a time (exact until the last, which may round once).
[step, ~, top] = steps(m);
d = m;
while s > 0
  d = d * step;
  s = s - 1;
end
while s < 0
  d = d / step;
  s = s + 1;
end
if isfinite(d) && abs(d) >= top
  error('m2cu:det', 'm2cu: det: the determinant is too near the largest %s, where Octave gives Inf', class(m));
end
end

function [step, limit, top] = steps(x)
% The scaling step of a product of x's class, the largest pivot magnitude it allows, and the
% smallest magnitude where Octave's product may overflow.
if isa(x, 'single')
  step = single(1125899906842624);
  limit = single(1099511627776);
  top = single(1.7014118e38);
else
  step = 3.273390607896142e+150;
  limit = 2.5822498780869086e+120;
  top = 8.98846567431158e+307;
end
end
