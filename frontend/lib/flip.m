function y = flip(x, dim)
%FLIP  x with the order of its elements reversed along DIM (the first dimension whose extent
%   is not 1 without one): flipud along the columns, fliplr along the rows.
%
%   m2cu's own MATLAB source: the first two dimensions.
if nargin < 2
  if size(x, 1) == 1
    dim = 2;
  else
    dim = 1;
  end
elseif ~(dim >= 1 && dim == fix(dim))
  error('flip: DIM must be a positive integer');
end
if dim == 1
  y = flipud(x);
elseif dim == 2
  y = fliplr(x);
else
  error('m2cu:flip', 'm2cu: flip along a third dimension is not supported yet');
end
end
