function z = trapz(x, y)
%TRAPZ  The trapezoid rule: trapz(y) with unit spacing, trapz(x, y) with the points x (as many
%   as y has, or one spacing), of a vector y, as Octave computes it:
%   0.5 * sum(diff(x) .* (y(2:n) + y(1:n-1))).
%
%   m2cu's own MATLAB source: vectors only; the sum is a reduction.
if nargin == 1
  y = x;
end
if ~isfloat(y)
  m2cu_refuse('`trapz` of integer, logical or char values: MATLAB stops, Octave 7 computes in the class', ...
              'convert first, `trapz(double(y))`');
end
if ~isvector(y) && ~isempty(y)
  error('m2cu:trapz', 'm2cu: trapz of a matrix is not supported yet; integrate each column, trapz(x, Y(:, j))');
end
n = numel(y);
if n == 0
  error('m2cu:trapz', 'm2cu: trapz of an empty vector is an empty array in Octave 7 and 0 in MATLAB; test isempty(y) first');
end
y = y(:);
if nargin == 1
  z = 0.5 * sum(y(2:n) + y(1:n - 1));
elseif m2cu_scalar_type(x)
  z = x * 0.5 * sum(y(2:n) + y(1:n - 1));
elseif numel(x) == 1
  z = x(1) * 0.5 * sum(y(2:n) + y(1:n - 1));
else
  if numel(x) ~= n
    error('trapz: length of X and length of Y along DIM must match');
  end
  x = x(:);
  z = 0.5 * sum(diff(x) .* (y(2:n) + y(1:n - 1)));
end
end
