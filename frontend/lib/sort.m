function [s, idx] = sort(x, a, b)
%SORT  Sort the elements of each column (or row, or along DIM) in ascending or descending order.
%   s = sort(x), sort(x, dim), sort(x, mode), sort(x, dim, mode), [s, idx] = sort(...).
%   As MATLAB: the sort is stable (equal elements keep their order, so idx is the same on every
%   machine), NaN goes last in ascending order and first in descending order, -0 and 0 are
%   equal, complex values sort by abs and then by angle, s has the class of x and idx is double.
%   A DIM past the second returns x unchanged (MATLAB; Octave 7 stops with "invalid dimension").
%
%   m2cu's own MATLAB source: a bottom-up merge sort of each line, run where the program's
%   other sequential loops run.
descend = false;
dim = 0;
if nargin >= 2
  if ischar(a)
    descend = descending(a);
  else
    dim = a;
  end
end
if nargin == 3
  descend = descending(b);
end
if dim == 0
  dim = 1;
  if size(x, 1) == 1
    dim = 2;
  end
elseif ~(dim >= 1 && dim == floor(dim))
  error('sort: DIM must be a valid dimension');
end
s = x;
idx = ones(size(x));
[m, n] = size(x);
if dim == 1
  len = m; lines = n; stride = 1; step = m;
elseif dim == 2
  if ndims(x) > 2
    error('m2cu:sort', 'm2cu: sort along the rows of a 3-D array is not supported yet');
  end
  len = n; lines = m; stride = m; step = 1;
else
  len = 1; lines = 0; stride = 1; step = 1;
end
for line = 1:lines
  first = 1 + (line - 1) * step;
  [s_line, idx_line] = merge_sort(x(first:stride:first + (len - 1) * stride), descend);
  s(first:stride:first + (len - 1) * stride) = s_line;
  idx(first:stride:first + (len - 1) * stride) = idx_line;
end
end

function [keys, order] = merge_sort(keys, descend)
% Sorts the vector keys, stably; order(k) is the position in the input of keys(k).
len = numel(keys);
order = 1:len;
merged = keys;
merged_order = order;
width = 1;
while width < len
  for lo = 1:2 * width:len
    mid = min(lo + width - 1, len);
    hi = min(lo + 2 * width - 1, len);
    i = lo;
    j = mid + 1;
    for k = lo:hi
      if i <= mid && (j > hi || in_order(keys(i), keys(j), descend))
        merged(k) = keys(i);
        merged_order(k) = order(i);
        i = i + 1;
      else
        merged(k) = keys(j);
        merged_order(k) = order(j);
        j = j + 1;
      end
    end
  end
  keys = merged;
  order = merged_order;
  width = 2 * width;
end
end

function t = in_order(l, r, descend)
% Whether l may stay before r: NaN last ascending, first descending; ties keep their order.
if ~isreal(l)
  t = in_order_complex(l, r, descend);
elseif descend
  t = isnan(l) || l >= r;
else
  t = isnan(r) || l <= r;
end
end

function t = in_order_complex(l, r, descend)
% Complex values in order of abs, then of angle, NaN (in either part) as above.
l_nan = isnan(real(l)) || isnan(imag(l));
r_nan = isnan(real(r)) || isnan(imag(r));
if descend
  t = l_nan || (~r_nan && (abs(l) > abs(r) || (abs(l) == abs(r) && angle(l) >= angle(r))));
else
  t = r_nan || (~l_nan && (abs(l) < abs(r) || (abs(l) == abs(r) && angle(l) <= angle(r))));
end
end

function d = descending(mode)
% Whether the mode argument asks for descending order (any letter case, as MATLAB).
d = strcmpi(mode, 'descend');
if ~d && ~strcmpi(mode, 'ascend')
  error('sort: MODE must be either "ascend" or "descend"');
end
end
