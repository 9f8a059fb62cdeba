function y = m2cu_cumulate(name, x, dim, product)
%M2CU_CUMULATE  The running sums (products when PRODUCT) of x along dim, for cumsum and cumprod.
%   In order from the first element, as MATLAB and Octave add (so the results are the same to
%   the bit); logical and char values become double, single stays single. Each column (row)
%   is one iteration of a parallel loop: the scan itself runs in order.
if islogical(x) || ischar(x)
  y = double(x);
else
  y = x;
end
if ~(dim >= 1 && dim == floor(dim))
  error('%s: DIM must be a valid dimension', name);
end
if ndims(x) > 2
  error('m2cu:cumulate', 'm2cu: %s of a 3-D array is not supported yet', name);
end
[m, n] = size(y);
if dim == 1
  for j = 1:n
    for i = 2:m
      y(i, j) = step(y(i - 1, j), y(i, j), product);
    end
  end
elseif dim == 2
  for i = 1:m
    for j = 2:n
      y(i, j) = step(y(i, j - 1), y(i, j), product);
    end
  end
end
end

function c = step(a, b, product)
if product
  c = a * b;
else
  c = a + b;
end
end
