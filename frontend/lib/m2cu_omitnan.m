function s = m2cu_omitnan(x, op, dim)
%M2CU_OMITNAN  sum(x, ..., 'omitnan'), prod(...) and mean(...) (OP 1, 2 and 3): the NaN
%   elements are left out, as MATLAB does. Each is replaced by the identity of the operation
%   (-0 for a sum, which leaves every sum as it was, 1 for a product), and the mean divides by
%   the count of the others, so a line of NaN only has the sum 0, the product 1 and the mean
%   NaN. Without DIM along the default dimension of sum; DIM 0 reduces all the elements
%   ('all'). Only floating values hold NaN: other classes reduce as they are.
%   Octave 7 has no 'omitnan': tests compare with the masked form, sum(x(~isnan(x))).
if ~isreal(x)
  m2cu_refuse('`sum`, `prod` or `mean` of complex values with ''omitnan'' is not supported yet', ...
              'leave out the NaN values with a loop that tests isnan(real(z)) || isnan(imag(z))');
end
% A scalar becomes a one-element array, so that its NaN can be replaced like an element.
y = repmat(x, 1, 1);
if isfloat(x)
  kept = ~isnan(y);
  if op == 2
    y(~kept) = 1;
  else
    y(~kept) = -0;
  end
else
  kept = true(size(x));
end
if nargin < 3
  if op == 1
    s = sum(y);
  elseif op == 2
    s = prod(y);
  else
    s = sum(y) ./ sum(kept);
  end
elseif dim == 0
  if op == 1
    s = sum(y(:));
  elseif op == 2
    s = prod(y(:));
  else
    s = sum(y(:)) / sum(kept(:));
  end
elseif op == 1
  s = sum(y, dim);
elseif op == 2
  s = prod(y, dim);
else
  s = sum(y, dim) ./ sum(kept, dim);
end
end
