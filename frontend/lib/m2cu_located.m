function [m, k] = m2cu_located(x, largest, dim)
%M2CU_LOCATED  [m, k] = max(x), max(x, [], dim) and the same of min (the smallest unless
%   LARGEST) for a matrix: the extreme value of each column (row) and its index along the
%   line. Without DIM, along the first dimension whose extent is not 1.
%   As MATLAB and Octave: NaN is skipped (a line of NaN only gives NaN at index 1), ties keep
%   the first index, complex values compare by abs and then by angle, m has the class of x and
%   k is double; a dimension past the second gives x itself with indices 1. m2cu stops where
%   MATLAB and Octave 7 differ: a line of no elements.
%   Each column (row) is one iteration of a parallel loop; the search along it runs in order.
if islogical(x) || ischar(x)
  m2cu_refuse('`[m, k] = max(...)` or `min(...)` of a logical or char array is not supported yet', ...
              'convert first, as in `[m, k] = max(double(x), [], dim)`');
end
if ndims(x) > 2
  error('m2cu:located', 'm2cu: [m, k] = max(...) or min(...) of a 3-D array is not supported yet');
end
if nargin < 3
  [m, k] = by_default(x, largest);
elseif ~(dim >= 1 && dim == floor(dim)) && largest
  error('max: DIM must be a valid dimension');
elseif ~(dim >= 1 && dim == floor(dim))
  error('min: DIM must be a valid dimension');
else
  [m, k] = along(x, dim, largest);
end
end

function [m, k] = by_default(x, largest)
% Along the first dimension whose extent is more than 1: a row of results for any matrix.
if m2cu_known_dim(x) == 1
  [m, k] = along(x, 1, largest);
elseif m2cu_known_dim(x) == 2
  [m, k] = along(x, 2, largest);
elseif size(x, 1) == 1
  [m, k] = along(x, 2, largest);
  m = m.';
  k = k.';
else
  [m, k] = along(x, 1, largest);
end
end

function [m, k] = along(x, dim, largest)
% The extreme of each line of x along dim, with its index.
[rows, cols] = size(x);
if dim <= 2 && size(x, dim) == 0
  error('m2cu:located', 'm2cu: [m, k] = max(...) or min(...) along an empty dimension: MATLAB and Octave 7 give results of different sizes');
end
if dim == 1
  m = x(1, 1:end);
  k = ones(1, cols);
  for j = 1:cols
    for i = 2:rows
      if m2cu_replaces(x(i, j), m(j), largest)
        m(j) = x(i, j);
        k(j) = i;
      end
    end
  end
elseif dim == 2
  m = x(1:end, 1);
  k = ones(rows, 1);
  for i = 1:rows
    for j = 2:cols
      if m2cu_replaces(x(i, j), m(i), largest)
        m(i) = x(i, j);
        k(i) = j;
      end
    end
  end
else
  m = x;
  k = ones(rows, cols);
end
end
