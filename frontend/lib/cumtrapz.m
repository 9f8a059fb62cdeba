function z = cumtrapz(x, y)
%CUMTRAPZ  The running trapezoid rule: z(k) integrates from the first point to the k-th, with
%   unit spacing (cumtrapz(y)), one spacing or the points x, of a vector y; z has y's shape and
%   starts at 0, as Octave computes it: [0, 0.5 * cumsum(diff(x) .* (y(2:n) + y(1:n-1)))].
%
%   m2cu's own MATLAB source: vectors only; the running sum is a scan.
if nargin == 1
  y = x;
end
if ~isfloat(y)
  m2cu_refuse('`cumtrapz` of integer, logical or char values: MATLAB stops, Octave 7 computes in the class', ...
              'convert first, `cumtrapz(double(y))`');
end
if ~isvector(y)
  error('m2cu:cumtrapz', 'm2cu: cumtrapz of a matrix or an empty array is not supported yet');
end
n = numel(y);
if nargin == 1 || m2cu_scalar_type(x)
  spacing = ones(1, max(n - 1, 0));
else
  if numel(x) ~= n
    error('cumtrapz: length of X and length of Y along DIM must match');
  end
  spacing = x(2:n) - x(1:n - 1);
end
z = zeros(size(y), 'like', y);
acc = zeros(1, 1, 'like', y);
for k = 2:n
  % A unit spacing multiplies exactly: 1 * v is v.
  acc = acc + spacing(k - 1) * (y(k) + y(k - 1));
  if nargin > 1 && m2cu_scalar_type(x)
    z(k) = x * 0.5 * acc;
  else
    z(k) = 0.5 * acc;
  end
end
end
