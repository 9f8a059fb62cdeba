function c = m2cu_max(a, b)
%M2CU_MAX  max(a, b) as a binary function, for `gpucoder.reduce(A, @max)`.
c = max(a, b);
end
