function C = m2cu_cat_pages(A, B)
%M2CU_CAT_PAGES  cat(3, A, B): A's pages, then B's. A and B have the same rows, columns and
%   class (m2cu refuses other classes; MATLAB's rules for mixing them are not modelled).
% Each test is decided when translating, so the refusal is a translation error.
if ~((isa(A, 'double') && isa(B, 'double')) || (isa(A, 'single') && isa(B, 'single')) ...
    || (isa(A, 'logical') && isa(B, 'logical')) || (isa(A, 'char') && isa(B, 'char')) ...
    || (isa(A, 'int8') && isa(B, 'int8')) || (isa(A, 'uint8') && isa(B, 'uint8')) ...
    || (isa(A, 'int16') && isa(B, 'int16')) || (isa(A, 'uint16') && isa(B, 'uint16')) ...
    || (isa(A, 'int32') && isa(B, 'int32')) || (isa(A, 'uint32') && isa(B, 'uint32')) ...
    || (isa(A, 'int64') && isa(B, 'int64')) || (isa(A, 'uint64') && isa(B, 'uint64'))) ...
    || ~isreal(A) || ~isreal(B)
  m2cu_refuse('`cat(3, ...)` of arrays of different classes, or of complex arrays', 'convert them to one real class first');
end
if size(A, 1) ~= size(B, 1) || size(A, 2) ~= size(B, 2)
  error('MATLAB:catenate:dimensionMismatch', 'Dimensions of arrays being concatenated are not consistent.');
end
pa = size(A, 3);
pb = size(B, 3);
C = zeros(size(A, 1), size(A, 2), pa + pb, 'like', A);
for p = 1:pa
  C(:, :, p) = A(:, :, p);
end
for p = 1:pb
  C(:, :, pa + p) = B(:, :, p);
end
end

