function c = cross(a, b)
%CROSS  The cross product of two 3-element vectors, with the orientation of a (a row for a
%   row, a column for a column).
if numel(a) ~= 3 || numel(b) ~= 3
  error('cross: must have at least one dimension with 3 elements');
end
c = a;
c(1) = a(2) * b(3) - a(3) * b(2);
c(2) = a(3) * b(1) - a(1) * b(3);
c(3) = a(1) * b(2) - a(2) * b(1);
end
