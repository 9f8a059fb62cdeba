function c = m2cu_min(a, b)
%M2CU_MIN  min(a, b) as a binary function, for `gpucoder.reduce(A, @min)`.
c = min(a, b);
end
