function y = diff(x, k, dim)
%DIFF  Differences between neighbours: diff(x), the k-th differences diff(x, k), along DIM.
%   As MATLAB: y(i) = x(i+1) - x(i) along the first dimension whose extent is not 1 (or DIM),
%   k times; integers saturate in their class, logical and char values give double. An order
%   at least a matrix's extent without a DIM (where MATLAB goes on along the next dimension)
%   stops.
if nargin < 2
  k = 1;
end
if ~(k >= 0 && k == floor(k))
  error('diff: order K must be non-negative');
end
if nargin == 3
  if ~(dim >= 1 && dim == floor(dim))
    error('diff: DIM must be a valid dimension');
  elseif dim > 2
    error('m2cu:diff', 'm2cu: diff along a third dimension is not supported yet');
  end
  y = along(x, k, dim);
elseif size(x, 1) == 1
  if numel(x) == 1
    error('m2cu:diff', 'm2cu: diff of a 1-by-1 value is 0-by-0 in Octave and 0-by-1 in MATLAB, and m2cu makes a row here; test numel(x) > 1 first');
  end
  y = along(x, k, 2);
else
  if k >= size(x, 1) && size(x, 2) ~= 1
    error('m2cu:diff', 'm2cu: diff: an order K at least the number of rows of a matrix goes on along the rows in MATLAB, which m2cu does not do yet; give the dimension, diff(x, k, 1)');
  end
  y = along(x, k, 1);
end
end

function y = along(x, k, dim)
% The k-th differences along dim (1 or 2; a number the call gives decides the branch at
% translation time, so a row stays a row).
if islogical(x) || ischar(x)
  y = double(x);
else
  y = x;
end
for pass = 1:k
  if dim == 1
    y = y(2:end, :) - y(1:end - 1, :);
  else
    y = y(:, 2:end) - y(:, 1:end - 1);
  end
end
end
