function ind = sub2ind(dims, r, c)
%SUB2IND  The linear index of the subscripts (r, c) in an array of size DIMS:
%   r + (c - 1) * dims(1), or r itself for sub2ind(dims, r). As Octave: each subscript must be
%   a positive integer within its extent (the single subscript within prod(dims)), r and c
%   must have the same size, and ind is double of that size; the first bad subscript stops
%   with Octave's message, r's before c's. DIMS must have two extents.
if numel(dims) ~= 2
  error('m2cu:sub2ind', 'm2cu: sub2ind with a size of more than two extents is not supported yet');
end
if nargin < 3
  ind = linear(dims, r);
else
  ind = subscripts(dims, r, c);
end
end

function ind = linear(dims, r)
% sub2ind(dims, r): r itself, each element checked against prod(dims).
for k = 1:numel(r)
  if ~(r(k) >= 1 && r(k) == fix(r(k)))
    error('index (%g): subscripts must be either integers 1 to (2^63)-1 or logicals', r(k));
  elseif r(k) > dims(1) * dims(2)
    error('index (%g): out of bound %g (dimensions are %gx%g)', r(k), dims(1) * dims(2), dims(1), dims(2));
  end
end
ind = double(r);
end

function ind = subscripts(dims, r, c)
% sub2ind(dims, r, c), r's elements checked before c's.
if ~(ndims(r) == ndims(c) && size(r, 1) == size(c, 1) && size(r, 2) == size(c, 2))
  error('sub2ind: all subscripts must be of the same size');
end
for k = 1:numel(r)
  if ~(r(k) >= 1 && r(k) == fix(r(k)))
    error('index (%g,_): subscripts must be either integers 1 to (2^63)-1 or logicals', r(k));
  elseif r(k) > dims(1)
    error('index (%g,_): out of bound %g (dimensions are %gx%g)', r(k), dims(1), dims(1), dims(2));
  end
end
for k = 1:numel(c)
  if ~(c(k) >= 1 && c(k) == fix(c(k)))
    error('index (_,%g): subscripts must be either integers 1 to (2^63)-1 or logicals', c(k));
  elseif c(k) > dims(2)
    error('index (_,%g): out of bound %g (dimensions are %gx%g)', c(k), dims(2), dims(1), dims(2));
  end
end
ind = double(r) + (double(c) - 1) * dims(1);
end
