function y = m2cu_cumulate(name, x, dim, product)
%M2CU_CUMULATE  The running sums (products when PRODUCT) of x along dim, for cumsum and cumprod.
%   In order from the first element, as MATLAB and Octave add (so the results are the same to
%   the bit); logical and char values become double, single stays single. Each column (row)
%   is one iteration of a parallel loop: the scan itself runs in order. A real vector is one
%   running value over its elements, which the GPU computes as a parallel scan (its sums
%   then agree with the ordered ones within rounding).
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
scanned = false;
if isreal(y)
  if numel(y) > 1 && ((dim == 1 && n == 1) || (dim == 2 && m == 1))
    scanned = true;
    % From the identity in y's class (-0 + v is v, sign of zero too), so that the host reads
    % no element of y.
    if product
      acc = ones('like', y);
      for k = 1:numel(y)
        acc = acc * y(k);
        y(k) = acc;
      end
    else
      acc = -zeros('like', y);
      for k = 1:numel(y)
        acc = acc + y(k);
        y(k) = acc;
      end
    end
  end
end
if ~scanned && dim == 1
  for j = 1:n
    for i = 2:m
      y(i, j) = step(y(i - 1, j), y(i, j), product);
    end
  end
elseif ~scanned && dim == 2
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
