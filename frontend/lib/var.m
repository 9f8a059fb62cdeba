function v = var(x, w, dim)
%VAR  Variance along the first dimension whose extent is not 1, or along DIM.
%   var(x), var(x, w), var(x, w, dim), var(x, [], dim): w = 0 (or []) divides by n - 1, w = 1
%   by n, and a vector w of non-negative weights (one per element along DIM) gives the
%   weighted variance. As Octave 7 and MATLAB: the mean is the sum in order divided by n and
%   the squared deviations are summed in order; one element gives 0 (NaN for NaN or Inf), none
%   gives NaN, var([]) is NaN; single stays single, logical gives double, complex x a real
%   variance. Integer arrays are refused (MATLAB stops, Octave 7 returns double).
%
%   m2cu's own MATLAB source: each column (row) is one iteration of a parallel loop.
if isinteger(x)
  m2cu_refuse('`var` or `std` of an integer array: MATLAB stops and Octave 7 returns double, so m2cu takes neither', ...
              'convert first for the double result: `std(double(x))`, `var(double(x))`');
end
if ischar(x)
  error('var: X must be a numeric vector or matrix');
end
if nargin == 3 && ~(dim >= 1 && dim == floor(dim))
  error('var: DIM must be a positive integer scalar, vector, or ''all''');
end
if ndims(x) > 2
  error('m2cu:var', 'm2cu: var of a 3-D array is not supported yet');
end
if nargin == 3
  v = along(x, w, dim, true);
elseif nargin == 2
  v = by_default(x, w);
else
  v = by_default(x, 0);
end
end

function v = by_default(x, w)
% Along the first dimension whose extent is not 1: a row of results for any matrix.
if m2cu_known_dim(x) == 1
  v = along(x, w, 1, false);
elseif m2cu_known_dim(x) == 2
  v = along(x, w, 2, false);
elseif size(x, 1) == 1 && size(x, 2) ~= 1
  v = along(x, w, 2, false).';
else
  v = along(x, w, 1, false);
end
end

function v = along(x, w, dim, dim_given)
% The variances of the lines of x along dim, with the weights w (0, 1, [] or a vector).
[m, n] = size(x);
len = size(x, dim);
check_weights(w, len);
if dim == 1
  lines = n;
  if ~dim_given && m == 0 && n == 0
    lines = 1;
  end
  v = zeros(1, lines, 'like', zero_of(x));
  for j = 1:lines
    v(j) = spread(x, 1 + (j - 1) * m, 1, m, w);
  end
elseif dim == 2
  v = zeros(m, 1, 'like', zero_of(x));
  for i = 1:m
    v(i) = spread(x, i, m, n, w);
  end
else
  v = abs(x - x);
end
end

function check_weights(w, len)
% Octave's checks of the weights for lines of len elements.
if numel(w) == 1
  if all(w ~= 0 & w ~= 1) && len ~= 1
    error('var: W must be 0, 1, or a vector of positive integers');
  end
elseif numel(w) > 1
  if any(w < 0)
    error('var: W must be 0, 1, or a vector of positive integers');
  elseif numel(w) ~= len
    error('var: the length of W must be equal to the size of X in the dimension along which variance is calculated');
  end
end
end

function v = spread(x, first, stride, len, w)
% The variance of x(first), x(first + stride), ... (len elements) with the weights w.
if len == 0
  v = zero_of(x) + NaN;
elseif len == 1
  v = abs(x(first) - x(first));
elseif isscalar(w) || numel(w) <= 1
  v = plain(x, first, stride, len, sum(w));
else
  if ~isreal(x)
    m2cu_refuse('a weighted `var` or `std` of complex values: Octave 7 squares the deviations without their conjugate and MATLAB takes their magnitude, so m2cu takes neither', ...
                'weight the magnitudes yourself: `sum(w .* abs(x - mu) .^ 2) / sum(w)`');
  end
  v = weighted(x, first, stride, len, w);
end
end

function v = plain(x, first, stride, len, w)
% Octave's sumsq(x - mean(x)) / (n - 1 + w), each sum in order.
s = zero_of(x);
for k = 0:len - 1
  s = s + x(first + k * stride);
end
mu = s / len;
q = zero_of(x);
for k = 0:len - 1
  q = q + square(x(first + k * stride) - mu);
end
v = q / (len - 1 + w);
end

function v = weighted(x, first, stride, len, w)
% Octave's sum(w .* (x - mu) .^ 2) / sum(w) with mu = sum(w .* x) / sum(w), each in order.
s = zero_of(x);
total = 0;
for k = 0:len - 1
  s = s + w(k + 1) * x(first + k * stride);
  total = total + w(k + 1);
end
mu = s / total;
q = zero_of(x);
for k = 0:len - 1
  q = q + w(k + 1) * (x(first + k * stride) - mu) ^ 2;
end
v = q / total;
end

function z = zero_of(x)
% A real 0 of the class of x's variance: single for single, else double.
if isa(x, 'single')
  z = single(0);
else
  z = 0;
end
end

function q = square(d)
% |d|^2 as Octave's sumsq computes it: d * conj(d).
if isreal(d)
  q = d * d;
else
  q = real(d) * real(d) + imag(d) * imag(d);
end
end
