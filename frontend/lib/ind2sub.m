function [r, c] = ind2sub(dims, ind)
%IND2SUB  The subscripts (r, c) of the linear index IND in an array of size DIMS:
%   r = mod(ind - 1, dims(1)) + 1, c = floor((ind - 1) / dims(1)) + 1; with one output, ind
%   itself. As Octave: each index must be a positive integer at most prod(dims), else the
%   first bad one stops with Octave's message; r and c are double. DIMS must have two extents.
if numel(dims) ~= 2
  error('m2cu:ind2sub', 'm2cu: ind2sub with a size of more than two extents is not supported yet');
end
for k = 1:numel(ind)
  if ~(ind(k) >= 1 && ind(k) == fix(ind(k)))
    error('ind2sub: invalid index index %g: subscripts must be either integers 1 to (2^63)-1 or logicals', ind(k));
  elseif ind(k) > dims(1) * dims(2)
    error('ind2sub: index out of range');
  end
end
if nargout < 2
  r = double(ind);
else
  r = mod(double(ind) - 1, dims(1)) + 1;
  c = floor((double(ind) - 1) / dims(1)) + 1;
end
end
